// Umbrella header: the Linux event primitives the ReachdEventLoops module is built
// on, which Glibc's Swift module does not export. Headers only, no library.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
