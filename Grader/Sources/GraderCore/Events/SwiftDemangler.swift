import Foundation

/// Swift symbol names as a person reads them, from the Swift runtime's own demangler:
/// `swift_demangle`, exported by the runtime on every platform (swift `include/swift/Demangling/Demangle.h`,
/// `swift_demangle`; the same entry point the standard library's tests and `swift demangle` use).
enum SwiftDemangler {
    /// `$s13BoundedBufferAAC3put_7timeoutyx_SdSgtKF` → `BoundedBuffer.BoundedBuffer.put(_: A, timeout: Swift.Double?) throws -> ()`;
    /// anything the runtime does not read comes back unchanged.
    static func demangle(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") else { return name }
        return name.withCString { pointer -> String in
            guard let demangled = swift_demangle(pointer, UInt(strlen(pointer)), nil, nil, 0) else { return name }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }
}

@_silgen_name("swift_demangle")
private func swift_demangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: UInt,
    _ outputBuffer: UnsafeMutablePointer<CChar>?, _ outputBufferSize: UnsafeMutablePointer<UInt>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
