"""Human lies in Diplomacy (Peskov et al. 2020): the data, detectors, the LLM judge and the evaluation."""
