package import LMDBKit

// The handles other targets of this package (TabKeepDump) read in their own transactions; apps
// never see them.
extension TabKeepStore {
    /// The documents database: document keys to encoded ``TabBarDocument``s.
    package var documentsHandle: Database { documents }

    /// The catalogs database: bar ids to encoded ``Catalog``s.
    package var catalogsHandle: Database { catalogsDatabase }
}
