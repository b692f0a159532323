import Glibc

/// The bytes of heap in use, as glibc's `mallinfo2()` counts them (`uordblks`, allocated in the
/// arenas, plus `hblkhd`, allocated by `mmap`): what the program holds, without freed memory
/// malloc keeps, thread stacks, or pages of files it maps (LMDB's map is a file mapping: its
/// pages are page cache, which the kernel can drop). nil where it cannot be read.
///
/// Swift's Glibc module does not declare `mallinfo2`, so it is looked up with `dlsym` and called
/// as the x86-64 System V ABI calls a function returning a struct of more than 16 bytes: the
/// caller passes the address of the result in the first argument register (the function returns
/// it again). Other architectures pass that address elsewhere; there the figure is nil and the
/// bench falls back to `RssAnon`.
enum Heap {
    /// `struct mallinfo2`: ten `size_t` fields.
    private static let fieldCount = 10

    private typealias Entry = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

    private static let function: Entry? = {
        #if arch(x86_64)
            guard let symbol = dlsym(nil, "mallinfo2") else { return nil }  // nil: RTLD_DEFAULT
            return unsafeBitCast(symbol, to: Entry.self)
        #else
            return nil
        #endif
    }()

    /// The heap in use, in bytes.
    static func inUse() -> Int? {
        guard let function else { return nil }
        var fields = [Int](repeating: 0, count: fieldCount)
        fields.withUnsafeMutableBytes { _ = function($0.baseAddress!) }
        // uordblks is field 8 (index 7), hblkhd field 5 (index 4).
        return fields[7] + fields[4]
    }
}
