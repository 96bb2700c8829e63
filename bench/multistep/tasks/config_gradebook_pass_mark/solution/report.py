"""Class report: one line per student plus a pass count."""
from grades import letter, percentage


def class_report(scores, config):
    """scores: dict name -> raw score."""
    lines = [config["course"]]
    passed = 0
    for name, score in sorted(scores.items()):
        pct = percentage(score, config)
        status = "PASS" if pct >= config["pass_mark"] else "FAIL"
        if status == "PASS":
            passed += 1
        lines.append(f"{name:<8}{pct:>6.1f}%  {letter(score, config)}  {status}")
    lines.append(f"{passed}/{len(scores)} passed")
    return "\n".join(lines)
