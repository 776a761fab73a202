// model-ThreadSafeDictionary: the systematic checks of ThreadSafeDictionary on the code `grader model` built with twins
// (the learner's, or with KATA_SOLUTIONS / KATA_VARIANT the solution or a variant).
import KataModel
import ModeledThreadSafeDictionary

ModelRunner.main(exercise: "ThreadSafeDictionary", checks: modelChecks)
