def current(data: dict) -> str:
    return (
        f"{data['name']}: {data['temperature_2m']:.1f}°C, "
        f"wind {data['wind_speed_10m']:.1f} km/h, {describe(data['weather_code'])}"
    )