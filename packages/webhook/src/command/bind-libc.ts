// libc through koffi: the functions posix-spawn.ts calls, bound once, and memory koffi owns for its lists.

/** A C function bound by koffi: called in place, or with `.async(...args, callback)` on libuv's thread pool. */
export interface NativeFunction {
  (...args: unknown[]): unknown;
  async: (...args: unknown[]) => void;
}

/** The part of a koffi library handle this module uses. */
export interface NativeLibrary {
  func(signature: string): NativeFunction;
}

/** The part of koffi that {@link koffiPin} uses. */
export interface NativeMemory {
  alloc(type: string, length: number): unknown;
  array(type: string, length: number): unknown;
  encode(ref: unknown, type: unknown, value: unknown): void;
}

/** {@link PosixSpawnDeps.pin} with koffi: an array of `char *` from `koffi.alloc`, its strings owned by koffi. */
export function koffiPin(koffi: NativeMemory): (list: readonly (string | null)[]) => unknown {
  return (list) => {
    const memory = koffi.alloc("char *", list.length);
    koffi.encode(memory, koffi.array("char *", list.length), list);
    return memory;
  };
}

/** The libc functions posix-spawn.ts uses, bound once. */
export function bindLibc(libc: NativeLibrary) {
  return {
    pipe2: libc.func("int pipe2(int *fds, int flags)") as (fds: Int32Array, flags: number) => number,
    close: libc.func("int close(int fd)") as (fd: number) => number,
    read: libc.func("long read(int fd, void *buf, unsigned long count)") as (
      fd: number,
      buf: Buffer,
      count: number,
    ) => number | bigint,
    fcntl: libc.func("int fcntl(int fd, int cmd, ...)") as (
      fd: number,
      cmd: number,
      type: "int",
      arg: number,
    ) => number,
    waitpid: libc.func("int waitpid(int pid, int *status, int options)") as (
      pid: number,
      status: Int32Array,
      options: number,
    ) => number,
    sigemptyset: libc.func("int sigemptyset(void *set)") as (set: Buffer) => number,
    fileActionsInit: libc.func("int posix_spawn_file_actions_init(void *fa)") as (fa: Buffer) => number,
    fileActionsDestroy: libc.func("int posix_spawn_file_actions_destroy(void *fa)") as (fa: Buffer) => number,
    addOpen: libc.func(
      "int posix_spawn_file_actions_addopen(void *fa, int fd, const char *path, int oflag, int mode)",
    ) as (fa: Buffer, fd: number, path: string, oflag: number, mode: number) => number,
    addDup2: libc.func("int posix_spawn_file_actions_adddup2(void *fa, int fd, int newfd)") as (
      fa: Buffer,
      fd: number,
      newfd: number,
    ) => number,
    // glibc 2.29+, musl 1.1.24+; without it binding throws and the server spawns with node instead.
    addChdir: libc.func("int posix_spawn_file_actions_addchdir_np(void *fa, const char *path)") as (
      fa: Buffer,
      path: string,
    ) => number,
    attrInit: libc.func("int posix_spawnattr_init(void *attr)") as (attr: Buffer) => number,
    attrSetFlags: libc.func("int posix_spawnattr_setflags(void *attr, short flags)") as (
      attr: Buffer,
      flags: number,
    ) => number,
    attrSetSigDefault: libc.func("int posix_spawnattr_setsigdefault(void *attr, void *set)") as (
      attr: Buffer,
      set: Buffer,
    ) => number,
    attrSetSigMask: libc.func("int posix_spawnattr_setsigmask(void *attr, void *set)") as (
      attr: Buffer,
      set: Buffer,
    ) => number,
    spawn: libc.func(
      "int posix_spawn(int *pid, const char *path, void *fa, void *attr, const char **argv, const char **envp)",
    ),
  };
}
