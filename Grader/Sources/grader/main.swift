import Foundation
import GraderCore

// The grader's logic lives in GraderCore so that its tests can reach it.
exit(GraderApp.main(Array(CommandLine.arguments.dropFirst())))
