// tabkeep-bench: TabKeep measured side by side with raw LMDB, SQLite and UserDefaults.
print("tabkeep-bench 0.1.0")
