import Glibc
import VersolaCommand

// The `versola` command: everything lives in VersolaCommand so that it can be tested.
exit(VersolaCommandLine.main(arguments: Array(CommandLine.arguments.dropFirst())))
