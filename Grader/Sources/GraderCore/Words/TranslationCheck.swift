import Foundation

/// `grader verify`'s check that the course says the same in Simplified Chinese as in English, so
/// that a change to one language fails verify until the other follows: every exercise and check
/// has a Chinese title translated from its current English one, and every learner document has a
/// Chinese twin with the same headings, the same code (comments may be translated) and the same
/// links, made from the English text as it is now.
struct TranslationCheck {
    var layout: KataLayout
    var rubric: Rubric

    // MARK: Titles

    func titleProblems() -> [String] {
        var problems: [String] = []
        func check(_ translation: Rubric.Translation?, english: String, what: String) {
            guard let translation, !translation.title.isEmpty else {
                problems.append("\(what) has no Simplified Chinese title (zhHans in Grader/rubric.json)")
                return
            }
            if translation.from != english {
                problems.append("\(what): the Chinese title \"\(translation.title)\" was translated from \"\(translation.from)\", but the English is now \"\(english)\": translate it again and update `from`")
            }
        }
        for exercise in rubric.exercises {
            check(exercise.zhHans, english: exercise.title, what: exercise.name)
            if let note = exercise.platformNote { check(exercise.platformNoteZhHans, english: note, what: "\(exercise.name)'s platform note") }
            let titles = Checklist.titles(layout: layout, exercise: exercise.name)
            for check in exercise.suiteChecks {
                guard let english = titles[check.test] else { continue }  // verify reports a missing test elsewhere
                checkTitle(check, english: english, exercise: exercise.name, into: &problems)
            }
        }
        return problems
    }

    private func checkTitle(_ check: Rubric.Check, english: String, exercise: String, into problems: inout [String]) {
        guard let translation = check.zhHans, !translation.title.isEmpty else {
            problems.append("\(exercise).\(check.test) has no Simplified Chinese title (zhHans in Grader/rubric.json)")
            return
        }
        if translation.from != english {
            problems.append("\(exercise).\(check.test): the Chinese title was translated from \"\(translation.from)\", but the @Test title is now \"\(english)\": translate it again and update `from`")
        }
    }
}
