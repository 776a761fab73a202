// model-Deadlocks: the systematic checks of Deadlocks on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledDeadlocks

ModelRunner.main(exercise: "Deadlocks", checks: modelChecks)
