/* SPDX-License-Identifier: MIT */
/* Every argument rule and errno of template creation. */
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "util.h"

static int create_args(struct spawn_template_create_args *a, size_t size)
{
	struct spawnkit_template *t = NULL;
	int ret = spawnkit_template_create_args(a, size, &t);

	if (!ret)
		spawnkit_template_destroy(t);
	return ret;
}

static void base(struct spawn_template_create_args *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->execfd = -1;
	a->filename = (uintptr_t)path;
}

/* A scratch directory; every case ends with the fds it started with. */
FIXTURE(errs) {
	char *dir;
	int fds_before;
};

FIXTURE_SETUP(errs)
{
	self->fds_before = count_open_fds();
	self->dir = make_tmpdir();
}

FIXTURE_TEARDOWN(errs)
{
	rm_tmpdir(self->dir);
	CHECK_EQ(count_open_fds(), self->fds_before);
}

/* the good cases first, so the errors below mean something */
TEST_F(errs, valid_args_by_path_fd_and_o_path)
{
	const char *probe = probe_path();
	struct spawn_template_create_args a;
	int fd;

	base(&a, probe);
	CHECK_EQ(create_args(&a, sizeof(a)), 0);
	fd = open(probe, O_RDONLY | O_CLOEXEC);
	memset(&a, 0, sizeof(a));
	a.execfd = fd;
	CHECK_EQ(create_args(&a, sizeof(a)), 0);
	close(fd);	/* the template took its own reference */
	fd = open(probe, O_PATH | O_CLOEXEC);
	a.execfd = fd;
	CHECK_EQ(create_args(&a, sizeof(a)), 0);	/* O_PATH is enough to exec */
	close(a.execfd);
}

/* size: below VER0 EINVAL, above a page E2BIG, non-zero tail E2BIG */
TEST_F(errs, args_size_rules)
{
	const char *probe = probe_path();
	struct spawn_template_create_args a;
	unsigned char big[8192];

	base(&a, probe);
	CHECK_ERR(create_args(&a, SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0 - 8), EINVAL);
	CHECK_ERR(create_args(&a, 0), EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &a, sizeof(a));
	CHECK_EQ(create_args((void *)big, 128), 0);	/* zero tail: a newer caller */
	CHECK_EQ(create_args((void *)big, 4096), 0);
	CHECK_ERR(create_args((void *)big, 4097), E2BIG);
	big[100] = 1;
	CHECK_ERR(create_args((void *)big, 128), E2BIG);
	CHECK_EQ(create_args((void *)big, 100), 0);	/* the byte is past size */
}

/* no create flag is defined: every bit is EINVAL, bit 0 (v1's CLOEXEC) too */
TEST_F(errs, every_flag_is_einval)
{
	const char *probe = probe_path();
	struct spawn_template_create_args a;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		base(&a, probe);
		a.flags = 1ULL << bit;
		CHECK_ERR(create_args(&a, sizeof(a)), EINVAL);
	}
}

/* The size is the only extension: 24 bytes (flags, filename, execfd), and
 * a non-zero byte where v1 had exec_flags, actions, actions_len and
 * reserved[4] (up to 72 bytes) is an unknown tail: E2BIG, not EINVAL. */
TEST_F(errs, v1_fields_are_an_unknown_tail)
{
	const char *probe = probe_path();
	union {
		struct spawn_template_create_args a;
		uint64_t w[9];
	} u;
	int i;

	CHECK_EQ(sizeof(u.a), 24);
	CHECK_EQ(SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0, 24);
	for (i = 3; i < 9; i++) {
		memset(&u, 0, sizeof(u));
		base(&u.a, probe);
		CHECK_EQ(create_args(&u.a, sizeof(u)), 0);
		u.w[i] = 1;
		CHECK_ERR(create_args(&u.a, sizeof(u)), E2BIG);
	}
	base(&u.a, probe);
	CHECK_ERR(create_args(&u.a, 16), EINVAL);
	u.a.execfd = 1LL << 32;
	u.a.filename = 0;
	CHECK_ERR(create_args(&u.a, 24), EINVAL);	/* an fd is an int */
}

/* exactly one of execfd >= 0 and filename; "no fd" is -1 only */
TEST_F(errs, exactly_one_of_execfd_and_filename)
{
	const char *probe = probe_path();
	struct spawn_template_create_args a;

	base(&a, probe);
	a.execfd = 0;
	CHECK_ERR(create_args(&a, sizeof(a)), EINVAL);
	base(&a, probe);
	a.execfd = -7;
	CHECK_ERR(create_args(&a, sizeof(a)), EINVAL);
	memset(&a, 0, sizeof(a));
	a.execfd = -1;
	CHECK_ERR(create_args(&a, sizeof(a)), EINVAL);
}

/* the path must be absolute */
TEST_F(errs, path_must_be_absolute)
{
	const char *probe = probe_path();
	struct spawnkit_template *t = NULL;

	CHECK_ERR(spawnkit_template_create("bin/true", 0, &t), EINVAL);
	CHECK_ERR(spawnkit_template_create("./probe", 0, &t), EINVAL);
	CHECK_ERR(spawnkit_template_create("", 0, &t), EINVAL);
	CHECK_ERR(spawnkit_template_create(NULL, 0, &t), EINVAL);	/* neither given */
	CHECK_ERR(spawnkit_template_create(probe, 0, NULL), EINVAL);
}

/* bad fds: EBADF */
TEST_F(errs, bad_fd_is_ebadf)
{
	const char *probe = probe_path();
	struct spawnkit_template *t = NULL;
	int fd;

	CHECK_ERR(spawnkit_template_create_fd(1000000, 0, &t), EBADF);
	fd = open(probe, O_RDONLY | O_CLOEXEC);
	close(fd);
	CHECK_ERR(spawnkit_template_create_fd(fd, 0, &t), EBADF);
}

/* not a regular file, not executable: EACCES */
TEST_F(errs, non_regular_or_non_executable_is_eacces)
{
	const char *probe = probe_path();
	const char *dir = self->dir;
	struct spawnkit_template *t = NULL;
	char path[256];
	int fd;

	CHECK_ERR(spawnkit_template_create("/tmp", 0, &t), EACCES);
	CHECK_ERR(spawnkit_template_create("/dev/null", 0, &t), EACCES);
	snprintf(path, sizeof(path), "%s/noexec-bits", dir);
	copy_file(probe, path, 0644);
	CHECK_ERR(spawnkit_template_create(path, 0, &t), EACCES);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK_ERR(spawnkit_template_create_fd(fd, 0, &t), EACCES);
	close(fd);
	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK_ERR(spawnkit_template_create_fd(fd, 0, &t), EACCES);
	close(fd);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK_EQ(mkfifo(path, 0755), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	CHECK_ERR(spawnkit_template_create_fd(fd, 0, &t), EACCES);
	close(fd);
	/* by path too: no writer exists, so this must not block in open */
	chmod(path, 0755);
	CHECK_ERR(spawnkit_template_create(path, 0, &t), EACCES);
}

/* a socket or a device at the path: EACCES, and never opened for
 * reading (/dev/ptmx would make a pty) */
TEST_F(errs, socket_or_device_is_eacces_unopened)
{
	const char *dir = self->dir;
	struct spawnkit_template *t = NULL;

	{
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		int sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", dir);
		CHECK_EQ(bind(sfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
		chmod(sun.sun_path, 0755);
		CHECK_ERR(spawnkit_template_create(sun.sun_path, 0, &t), EACCES);
		close(sfd);
		unlink(sun.sun_path);
	}
	CHECK_ERR(spawnkit_template_create("/dev/ptmx", 0, &t), EACCES);
}

/* a noexec mount: EACCES (we run as root, so we can mount one) */
TEST_F(errs, noexec_mount_is_eacces)
{
	const char *probe = probe_path();
	const char *dir = self->dir;
	struct spawnkit_template *t = NULL;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/mnt", dir);
	CHECK_EQ(mkdir(path, 0755), 0);
	if (mount("spawnkit-test", path, "tmpfs", MS_NOEXEC, "size=16m") == 0) {
		char file[300];

		snprintf(file, sizeof(file), "%s/prog", path);
		copy_file(probe, file, 0755);
		CHECK_ERR(spawnkit_template_create(file, 0, &t), EACCES);
		fd = open(file, O_RDONLY | O_CLOEXEC);
		CHECK_ERR(spawnkit_template_create_fd(fd, 0, &t), EACCES);
		close(fd);
		CHECK_EQ(umount(path), 0);
	} else {
		fprintf(stderr, "FAIL: cannot mount tmpfs (%s): root needed\n", strerror(errno));
		CHECK(0);
	}
}

/* missing files: the errors of open(2) */
TEST_F(errs, missing_file_errors_of_open)
{
	const char *probe = probe_path();
	const char *dir = self->dir;
	struct spawnkit_template *t = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/noexec-bits", dir);
	copy_file(probe, path, 0644);
	CHECK_ERR(spawnkit_template_create("/nonexistent/prog", 0, &t), ENOENT);
	snprintf(path, sizeof(path), "%s/noexec-bits/x", dir);
	CHECK_ERR(spawnkit_template_create(path, 0, &t), ENOTDIR);
	{
		char longp[PATH_MAX + 16];

		memset(longp, 'a', sizeof(longp));
		longp[0] = '/';
		longp[sizeof(longp) - 1] = '\0';
		CHECK_ERR(spawnkit_template_create(longp, 0, &t), ENAMETOOLONG);
	}
}

/* bad pointers: EFAULT, not a crash */
TEST_F(errs, bad_pointers_are_efault)
{
	struct spawn_template_create_args a;
	struct spawnkit_template *t = NULL;
	void *unmapped;

	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_ERR(spawnkit_template_create(unmapped, 0, &t), EFAULT);
	CHECK_ERR(spawnkit_template_create((const char *)8, 0, &t), EFAULT);
	CHECK_ERR(spawnkit_template_create_args(unmapped, sizeof(a), &t), EFAULT);
	CHECK_ERR(spawnkit_template_create_args(NULL, sizeof(a), &t), EFAULT);
	/* a path running into an unmapped page without a NUL */
	{
		char *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		munmap(two + 4096, 4096);
		memset(two, 'a', 4096);
		two[4000] = '/';
		CHECK_ERR(spawnkit_template_create(two + 4000, 0, &t), EFAULT);
		munmap(two, 4096);
	}
	munmap(unmapped, 4096);
}

/* The template's fd is close-on-exec with no flag, from a path or an fd */
TEST_F(errs, template_fd_is_cloexec_by_default)
{
	const char *probe = probe_path();
	struct spawnkit_template *t = NULL;
	int fd;

	fd = open(probe, O_RDONLY);	/* not close-on-exec itself */
	CHECK_EQ(spawnkit_template_create_fd(fd, 0, &t), 0);
	CHECK_EQ(fcntl(spawnkit_template_fd(t), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	spawnkit_template_destroy(t);
	close(fd);
	CHECK_EQ(spawnkit_template_create(probe, 0, &t), 0);
	CHECK_EQ(fcntl(spawnkit_template_fd(t), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	CHECK(spawnkit_template_fd(t) > 2);
	CHECK(!strcmp(spawnkit_template_path(t), probe));
	spawnkit_template_destroy(t);
	spawnkit_template_destroy(NULL);
}

TEST_HARNESS_MAIN
