"""Scoring and analysis: model predictions scored by execution (pass@k, robustness), and
code properties against model success (tables, plots, HTML report).
"""
