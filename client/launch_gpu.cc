#include "client/launch_gpu.h"

#include <dlfcn.h>

namespace qdcache::client::gpu {

void* EntryPoints::Find(const char* symbol) {
  void* address = ::dlsym(library_, symbol);
  if (address == nullptr && missing_.ok()) {
    missing_ = Unavailable(library_name_ + " lacks " + symbol + " (" + why_missing_ + ")");
  }
  return address;
}

std::string ErrorText(std::string_view api, int error, const char* name, const char* description) {
  std::string out =
      name != nullptr ? std::string(name) : std::string(api) + " error " + std::to_string(error);
  if (description != nullptr && out != description) out += std::string(" (") + description + ")";
  return out;
}

Status CheckDevice(int device, int count, std::string_view noun, std::string_view no_device) {
  if (count == 0) return Unavailable(std::string(no_device));
  if (device < 0 || device >= count) {
    return InvalidArgument(std::string(noun) + " " + std::to_string(device) + " does not exist (" +
                           std::to_string(count) + " present)");
  }
  return Status::Ok();
}

Status CheckLaunch(std::string_view api, const void* function, const std::string& name, Dim3 grid,
                   Dim3 block) {
  if (function == nullptr)
    return InvalidArgument("launch of a null " + std::string(api) + " kernel");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return InvalidArgument("launch of '" + name + "' with a zero grid or block dimension");
  }
  return Status::Ok();
}

Status CheckCopy(bool has_memory, std::size_t bytes, std::string_view direction, std::size_t size) {
  if (!has_memory) return FailedPrecondition("device buffer was moved from");
  if (bytes > size) {
    return InvalidArgument("copy of " + std::to_string(bytes) + " bytes " + std::string(direction) +
                           " a device buffer of " + std::to_string(size));
  }
  return Status::Ok();
}

}  // namespace qdcache::client::gpu
