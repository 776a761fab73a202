// model-CancellableWork: the systematic checks of CancellableWork on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledCancellableWork

ModelRunner.main(exercise: "CancellableWork", checks: modelChecks)
