// TabKeepUIKit: the UIKit skin over TabKeep's tab bar coordinator. Compiles only where UIKit exists.
#if canImport(UIKit)
    public import TabKeep
#endif
