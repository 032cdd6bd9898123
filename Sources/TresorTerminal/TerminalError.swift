// Why the full-screen terminal could not be started.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors of the terminal layer. Cases carry data; the CLI words the messages.
package enum TerminalError: Error, Equatable, Sendable {
    /// Standard input or output is not a terminal (a pipe, a file).
    case notATerminal
    /// ncurses has no description of `$TERM` (the value, possibly empty).
    case unknownTerminal(String)
}
