    widths = [max(_width(row[i]) for row in rows) for i in range(4)]
    lines = [data["name"]]
    for row in rows:
        lines.append("  ".join(cell + " " * (w - _width(cell)) for cell, w in zip(row, widths)).rstrip())