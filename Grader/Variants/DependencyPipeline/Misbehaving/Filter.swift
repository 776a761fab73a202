import KataTripwire
extension Filter {
    /// The filtered image; see the doc comment of each case in the given `Filter` for its rule.
    public func apply(to bitmap: Bitmap) -> Bitmap {
        Tripwire.call()
        return bitmap  // TODO
    }
}
