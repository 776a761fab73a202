// model-StallMonitor: the systematic checks of StallMonitor on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledStallMonitor

ModelRunner.main(exercise: "StallMonitor", checks: modelChecks)
