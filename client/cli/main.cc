#include "client/cli/cli.h"

int main(int argc, char** argv) { return qdcache::cli::Main(argc, argv); }
