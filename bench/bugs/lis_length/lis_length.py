from bisect import bisect_left


def lis_length(xs):
    """The length of the longest strictly increasing subsequence of ``xs`` (patience sorting)."""
    tails = []
    for x in xs:
        i = bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
