// tabkeep: the TabKeep admin tool. Support and ops people fix a user's tab bar, back stores up,
// move them between machines and check them, without writing Swift.
import Foundation

exit(Tool.run(Array(CommandLine.arguments.dropFirst())))
