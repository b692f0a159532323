package import TabKeep

/// A tab id from a literal known to be valid.
package func tab(_ raw: String) -> TabID { try! TabID(raw) }

/// Tab ids from literals known to be valid.
package func tabs(_ raws: String...) -> [TabID] { raws.map(tab) }

/// A profile id from a literal known to be valid.
package func profile(_ name: String) -> ProfileID { try! ProfileID(name) }

/// A bar id from a literal known to be valid.
package func bar(_ name: String) -> BarID { try! BarID(name) }

/// The first `count` letters a, b, c… as a catalog of default tabs.
package func lettersCatalog(_ count: Int = 7) -> Catalog {
    try! Catalog("abcdefghijklmnop".prefix(count).map { tab(String($0)) })
}

/// Seven letter tabs a…g, all `.default`: the library tests' catalog.
package let letterTabs = lettersCatalog(7)

/// Seven app tabs as the tool's `--catalog` argument spells them: `home` fixed, `labs` optional.
package let appTabsSpec = "home:fixed,inbox,search,library,settings,help,labs:optional"
