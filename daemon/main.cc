#include "daemon/daemon_main.h"

int main(int argc, char** argv) { return qdcache::daemon::RunDaemonMain(argc, argv); }
