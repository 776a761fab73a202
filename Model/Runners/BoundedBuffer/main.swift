// model-BoundedBuffer: the systematic checks of BoundedBuffer on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledBoundedBuffer

ModelRunner.main(exercise: "BoundedBuffer", checks: modelChecks)
