"""The tournament (#35): players, rounds, seating, every table at once, corrections and the
federation's report, on the dashboard's database and bus. ``model`` is the pure state of the
day, ``store`` its storage, ``rounds`` what the tables are told, ``sessions`` the corrected
table sessions, ``check`` and ``reports`` what the organiser hands in."""
