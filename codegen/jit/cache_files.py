"""Safe file access for the disk cache (POSIX): checked directories, files
opened without following symlinks and read with a size bound, atomic writes.

Everything here works relative to a directory file descriptor obtained from
`open_dir`, which has checked that the directory belongs to this user and
that no one else can write to it. Names are then opened with `dir_fd`, so a
path component swapped for a symlink after the check cannot redirect a read
or a write.

A file is used only if it is a regular file (`O_NOFOLLOW`: a symlink is
refused, whatever it points to; `O_NONBLOCK`: opening a FIFO cannot hang),
owned by this user, writable by no one else, and no larger than the bound
the caller gives (checked with `fstat` before reading, and again while
reading, so `/dev/zero`-like files cannot fill the memory).
"""
from __future__ import annotations

import errno
import os
import secrets
import stat

__all__ = ["Unsafe", "supported", "euid", "check_private", "open_dir", "read_regular", "write_atomic"]


class Unsafe(Exception):
    """A directory or file the cache must not use; the message says why."""


def supported() -> bool:
    """True where the checks can be made: O_NOFOLLOW, owners and *at() calls (POSIX)."""
    return (hasattr(os, "O_NOFOLLOW") and hasattr(os, "geteuid") and hasattr(os, "O_DIRECTORY")
            and os.open in os.supports_dir_fd and os.link in os.supports_dir_fd)


def euid() -> int:
    """The user the cache belongs to (the effective uid); one place, so tests can stand in another."""
    return os.geteuid()


def check_private(st: os.stat_result, what: str, path: str, secret: bool = False) -> None:
    """Raise Unsafe unless `st` belongs to this user and no one else can write to it
    (with `secret`, nor read it either)."""
    me = euid()
    if st.st_uid != me:
        raise Unsafe(f"{what} {path} is owned by uid {st.st_uid}, not by this user (uid {me})")
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022:
        who = "everyone" if mode & 0o002 else "its group"
        raise Unsafe(f"{what} {path} is writable by {who} (mode {mode:04o}); "
                     f"run `chmod go-w {path}`")
    if secret and mode & 0o077:
        raise Unsafe(f"{what} {path} can be read by others (mode {mode:04o}); run `chmod 600 {path}`")


def open_dir(path: str, create: bool, what: str = "cache directory") -> int:
    """A file descriptor of directory `path`, checked with `check_private`.

    With `create`, missing directories are made (the last one with mode
    0700). Symlinks in `path` are followed: the directory reached is what is
    checked. FileNotFoundError when it does not exist and `create` is False.
    """
    if create:
        os.makedirs(path, mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        check_private(os.fstat(fd), what, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(dir_fd: int, name: str, limit: int, what: str = "file", shown: str = "",
                 secret: bool = False) -> bytes:
    """The bytes of regular file `name` in `dir_fd`, at most `limit` of them.

    FileNotFoundError if it does not exist; Unsafe if it is a symlink, not a
    regular file, not this user's, writable by others (with `secret`:
    readable by others) or larger than `limit`. Messages call the file
    `what shown` (`shown` defaults to `name`).
    """
    shown = shown or name
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        # Linux says ELOOP for a final symlink under O_NOFOLLOW; FreeBSD EMLINK, NetBSD EFTYPE.
        if exc.errno in (errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", -1)):
            raise Unsafe(f"{what} {shown} is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unsafe(f"{what} {shown} is not a regular file ({_kind(st.st_mode)})")
        check_private(st, what, shown, secret)
        if st.st_size > limit:
            raise Unsafe(f"{what} {shown} has {st.st_size} bytes, more than the limit of {limit}")
        chunks, total = [], 0
        while True:   # bounded even if the file grows while it is read
            chunk = os.read(fd, min(limit + 1 - total, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise Unsafe(f"{what} {shown} grew past the limit of {limit} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def write_atomic(dir_fd: int, name: str, data: bytes, suffix: str, replace: bool = True) -> None:
    """Write `data` to `name` in `dir_fd` (mode 0600) so readers see all of it or nothing.

    The bytes go to a fresh temporary `.tmp-<hex><suffix>` (O_EXCL, no
    symlink followed) that is then renamed over `name` (`replace`) or linked
    to it only if `name` does not exist yet (FileExistsError otherwise: the
    secret key must never be replaced under a running process).
    """
    tmp = f".tmp-{secrets.token_hex(8)}{suffix}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                 dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if not replace:
                os.fsync(fd)   # the key outlives this process: never leave a short one behind
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            tmp = None
        else:
            os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
