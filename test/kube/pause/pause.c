/* pause: the pod sandbox's process in make test-kube's node (issue 37),
 * ours because no image can be pulled here. It holds the pod's namespaces
 * open, reaps the children it inherits, and exits on SIGINT or SIGTERM, as
 * the kubelet expects of a sandbox image. Built static, FROM scratch. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void reap(int sig) {
	(void)sig;
	while (waitpid(-1, 0, WNOHANG) > 0)
		;
}

static void quit(int sig) {
	(void)sig;
	_exit(0);
}

int main(void) {
	struct sigaction sa = {0};
	sa.sa_handler = reap;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, 0);
	sa.sa_handler = quit;
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, 0);
	sigaction(SIGTERM, &sa, 0);
	for (;;)
		pause();
}
