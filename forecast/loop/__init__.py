"""The daily loop around the scheduled forecasts: live scoring, promotion, updates.

``forecast batch`` (:mod:`forecast.batch`) writes a forecast every day; the loop scores,
compares and renews the models behind it:

* ``forecast score`` (:mod:`~forecast.loop.score`, the command in ``score_cli``): the stored
  forecasts joined with the actuals and scored as a backtest scores them, the live alert, the
  live metrics logged to the version that made each forecast
  (:mod:`~forecast.loop.score_tracking`);
* ``forecast promote`` (:mod:`~forecast.loop.promote`, ``promote_cli``): the promotion rule of
  champion and challenger over their live records, and the alias move;
* ``forecast update`` (:mod:`~forecast.loop.update`, ``update_cli``): a saved or registered
  model learns the rows it has not seen;
* which registered version made each stored forecast (:mod:`~forecast.loop.versions`).

The package sits above :mod:`forecast.batch`: it reads the batch's files, models and MLflow
records, and the batch imports nothing of it. Its command modules (``*_cli``,
``constants``) import nothing heavy, so ``forecast score --help`` answers at once; pandas,
torch and MLflow load when a command runs. ``docs/guide/daily-loop.md`` is the user's guide.
"""
