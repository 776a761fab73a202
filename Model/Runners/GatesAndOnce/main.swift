// model-GatesAndOnce: the systematic checks of GatesAndOnce on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledGatesAndOnce

ModelRunner.main(exercise: "GatesAndOnce", checks: modelChecks)
