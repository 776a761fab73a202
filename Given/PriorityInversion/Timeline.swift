extension Trace {
    /// The run as a timeline: one row per task, one column per tick.
    ///
    ///     tick          0         1
    ///                   0123456789012345
    ///     Bus      (9)   9AAA999
    ///     Meteo    (1)  1.99.........11
    ///     Comms    (5)    ...5555555555
    ///
    /// A digit: the task ran that tick, at that priority (`+` for 10 and above). `.`: ready,
    /// waiting for the CPU. A letter: waiting for that lock. `z`: asleep. Blank: not arrived yet,
    /// or finished. `ticks` limits the columns (the first ones are shown).
    public func timeline(ticks limit: Int? = nil) -> String {
        let count = min(cells.count, limit ?? cells.count)
        let labels = scenario.tasks.map { "\($0.id) (\($0.basePriority))" }
        let width = max(labels.map(\.count).max() ?? 0, 4) + 2
        func pad(_ text: String) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var tens = "", units = ""
        for tick in 0..<count {
            tens += tick % 10 == 0 ? String(tick / 10 % 10) : " "
            units += String(tick % 10)
        }
        while tens.hasSuffix(" ") { tens.removeLast() }
        var lines = [pad("tick") + tens, pad("") + units]
        for (index, label) in labels.enumerated() {
            var row = ""
            for tick in 0..<count { row.append(Self.symbol(cells[tick][index])) }
            while row.hasSuffix(" ") { row.removeLast() }
            lines.append(pad(label) + row)
        }
        return lines.joined(separator: "\n")
    }

    /// What each column of `timeline` means.
    public static let legend = "digit: ran that tick at that priority; '.': ready, waiting for the CPU; letter: waiting for that lock; 'z': asleep; blank: not arrived or finished"

    static func symbol(_ cell: Cell) -> Character {
        switch cell.state {
        case .running: cell.priority >= 0 && cell.priority <= 9 ? Character(String(cell.priority)) : "+"
        case .ready: "."
        case .waiting(let lock): lock.name.first ?? "?"
        case .sleeping: "z"
        case .notArrived, .done: " "
        }
    }
}
