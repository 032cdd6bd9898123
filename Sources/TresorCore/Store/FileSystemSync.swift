// syncfs(2) for the store, through the C shim (glibc declares it only under _GNU_SOURCE, which Swift does not define).
internal import CProcess

/// `syncfs(2)` of the file system holding `fd`: 0 on success.
func syncFileSystemHolding(_ fd: Int32) -> Int32 { tresor_syncfs(fd) }
