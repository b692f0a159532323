// tabkeep: the TabKeep admin tool.
print("tabkeep 0.1.0")
