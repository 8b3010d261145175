#include "daemon/server.h"

int main(int argc, char** argv) { return qdcache::daemon::RunDaemonMain(argc, argv); }
