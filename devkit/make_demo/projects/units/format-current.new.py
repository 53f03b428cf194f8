def current(data: dict, units: str) -> str:
    temp, speed = UNIT_LABELS[units]
    return (
        f"{data['name']}: {data['temperature_2m']:.1f}{temp}, "
        f"wind {data['wind_speed_10m']:.1f} {speed}, {describe(data['weather_code'])}"
    )