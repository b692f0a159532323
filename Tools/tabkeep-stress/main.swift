// tabkeep-stress: the child-process driver of Tests/ReliabilityTests; not a user tool.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(Stress.run(Array(CommandLine.arguments.dropFirst())))
