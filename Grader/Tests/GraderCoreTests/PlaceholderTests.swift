import GraderCore
import Testing

@Test func graderVersionIsSet() { #expect(!GraderVersion.current.isEmpty) }
