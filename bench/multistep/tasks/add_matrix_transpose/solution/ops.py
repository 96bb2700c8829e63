"""Reports built on the matrix helpers."""
from matrix import row_sums, transpose


def column_sums(m):
    """Sum of each column of m."""
    return row_sums(transpose(m))


def totals(m):
    return {"rows": row_sums(m), "columns": column_sums(m), "grand": sum(row_sums(m))}
