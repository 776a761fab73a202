// The grader's logic lands here (see issue: the grader).
public enum GraderVersion { public static let current = "0.1" }
