// The TabKeep core: identifiers, the mergeable document, layouts, the store and the tab bar model.
