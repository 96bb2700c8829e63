def fibonacci(n):
    """The ``n``-th Fibonacci number (0, 1, 1, 2, 3, 5, ...), bottom-up."""
    table = [0, 1]
    for i in range(2, n + 1):
        table.append(table[i - 1] + table[i - 2])
    return table[n]
