    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [data["name"]]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())