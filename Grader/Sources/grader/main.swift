// Placeholder until the grader lands: see README.md.
print("The grader is not built yet. Run one exercise with: swift test --filter ThreadSafeDictionaryTests")
