"""Reports built on the matrix helpers."""
from matrix import row_sums, shape


def column_sums(m):
    """Sum of each column of m."""
    rows, cols = shape(m)
    sums = []
    for c in range(cols):
        total = 0
        for r in range(rows):
            total += m[r][c]
        sums.append(total)
    return sums


def totals(m):
    return {"rows": row_sums(m), "columns": column_sums(m), "grand": sum(row_sums(m))}
