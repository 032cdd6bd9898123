// Entry point of the tresor command-line tool.
print("tresor")
