// Keeping secrets out of core files and away from other processes of the same user.
internal import CProcess

/// Process-wide settings for a program that holds secrets in memory.
public enum ProcessHardening {
    /// Sets `RLIMIT_CORE` to 0 and `PR_SET_DUMPABLE` to 0: a crash writes no core file, and other processes
    /// of the user can neither attach a debugger nor read this process's memory through /proc. Returns
    /// whether both took effect. Programs started later (an editor) are not affected.
    @discardableResult
    public static func disableCoreDumps() -> Bool { tresor_disable_core_dumps() == 0 }

    /// Whether the process may still dump core.
    static var isDumpable: Bool { tresor_is_dumpable() != 0 }
}
