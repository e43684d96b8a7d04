print("a", 1, nil, {}, true, print)
print()
