import Foundation
import VersolaCommand

// The `versola` engine: everything lives in VersolaCommand so that it can be tested.
// The front program (`versola-front`, installed as `versola`) runs it with `exec` for every
// command but a warm `token`, and to render an agent answer it hands over.
// First, before anything reads the environment: what the agent's launcher added to it.
AgentLaunchEnvironment.takeBackLauncherAdditions()
// Run through a link (`docker-credential-versola`), the link's name says the command.
let arguments = VersolaCommandLine.arguments(
    invokedAs: CommandLine.arguments.first ?? "versola", Array(CommandLine.arguments.dropFirst()))
let environment = ProcessInfo.processInfo.environment
if let descriptor = AgentReplyHandOver.descriptor(in: environment) {
    signal(SIGPIPE, SIG_IGN)
    let line = AgentReplyHandOver.read(descriptor)
    exit(AgentReplyHandOver.finish(line: line, arguments: arguments, environment: environment, console: StandardConsole()))
}
exit(VersolaCommandLine.main(arguments: arguments))
