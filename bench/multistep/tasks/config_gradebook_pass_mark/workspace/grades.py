"""Turning raw scores into percentages and results."""


def percentage(score, config):
    return 100 * score / config["max_score"]


def is_pass(score, config):
    return percentage(score, config) >= 50


def letter(score, config):
    pct = percentage(score, config)
    for bound, grade in [(90, "A"), (80, "B"), (70, "C"), (60, "D")]:
        if pct >= bound:
            return grade
    return "F"
