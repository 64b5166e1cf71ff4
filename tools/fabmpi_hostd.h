/* fabmpi_hostd.h — the protocol between mpiexec and fabmpi_hostd, the one
 * helper per host that `mpiexec --launcher ssh` starts over ssh.
 *
 * Both directions are the ssh session's stdin/stdout, framed like the
 * bootstrap protocol (src/boot/wire.h): {u32 type, u32 len} little endian,
 * then `len` bytes.  Everything the helper needs, the job key included,
 * comes in the START frame on stdin, so nothing secret is on a command line
 * and no shell quoting of the program's arguments is involved.
 *
 *   mpiexec → hostd                      hostd → mpiexec
 *   START{strings}                       STARTED{u32 rank, u32 pid}
 *   STDIN{bytes} (for rank 0)            OUT{u32 rank, u32 stream 1|2, line}
 *   STDIN_EOF                            EXIT{u32 rank, u32 wait status}
 *   SIGNAL{u32 rank or ~0 = all, u32 sig}
 *
 * START holds NUL-terminated strings: jobid, boot address, key, world size,
 * ranks this helper starts, node id, tag-output 0|1, bind-to-core 0|1, exit
 * timeout (s), the ranks this helper starts as "r1,r2,...", every rank of
 * the node (this helper's and other helpers' on the same machine) as
 * "r1,r2,..." in rank order, env count, VAR=value..., argc, argv...
 * End of stdin means mpiexec (or the ssh connection) is gone: the helper
 * ends its ranks (SIGTERM, SIGKILL after the exit timeout) and exits. */
#ifndef FM_TOOLS_HOSTD_H
#define FM_TOOLS_HOSTD_H

enum fm_hd_type {
    FM_HD_START = 1,
    FM_HD_STDIN,
    FM_HD_STDIN_EOF,
    FM_HD_SIGNAL,
    FM_HD_STARTED,
    FM_HD_OUT,
    FM_HD_EXIT,
};

#define FM_HD_ALL 0xffffffffu
#define FM_HD_MAX_FRAME (1u << 24) /* larger frames are protocol errors */

#endif
