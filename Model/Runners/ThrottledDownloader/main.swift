// model-ThrottledDownloader: the systematic checks of ThrottledDownloader on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledThrottledDownloader

ModelRunner.main(exercise: "ThrottledDownloader", checks: modelChecks)
