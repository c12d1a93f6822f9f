"""The data of chart_analysis: chart topics with realistic names and units; category and period colours."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """A chart topic: what is measured, of which kind of category, over which periods."""

    measure: str  # "sales", plural noun phrase used in sentences
    whose: str  # whose data, as it follows the measure ("of a coffee chain", "recorded by a weather service")
    noun: str  # singular noun of a category ("store")
    categories: tuple[str, ...]
    unit: str  # axis unit
    periods: tuple[str, ...]
    scales: tuple[int, ...]  # plausible maxima of a single value
    of: str  # the measure of one category, as a sentence names it ("the {total}rainfall in {cat}")

    def of_category(self, category: str, total: bool = False) -> str:
        """The measure of ``category`` as a sentence names it: "the rainfall in Bergen", "the total number of Laptops
        sold" (a genitive like "the units sold of Laptops" reads badly for most topics)."""
        return self.of.format(cat=category, total="total " if total else "")


TOPICS: tuple[Topic, ...] = (
    Topic(
        "revenue",
        "of a coffee chain",
        "store",
        ("Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Evora"),
        "k EUR",
        ("Q1 2023", "Q2 2023", "Q3 2023", "Q4 2023", "Q1 2024", "Q2 2024"),
        (60, 80, 120),
        "the {total}revenue of the {cat} store",
    ),
    Topic(
        "units sold",
        "of an electronics retailer",
        "product",
        ("Laptops", "Tablets", "Phones", "Monitors", "Printers", "Cameras"),
        "thousand units",
        ("2019", "2020", "2021", "2022", "2023", "2024"),
        (50, 100, 150),
        "the {total}number of {cat} sold",
    ),
    Topic(
        "electricity generation",
        "of a small country",
        "source",
        ("Solar", "Wind", "Hydro", "Gas", "Biomass", "Nuclear"),
        "TWh",
        ("2018", "2019", "2020", "2021", "2022", "2023"),
        (40, 60, 90),
        "the {total}electricity generated from {cat}",
    ),
    Topic(
        "website visits",
        "of an online magazine",
        "channel",
        ("Search", "Social", "Email", "Direct", "Referral", "Ads"),
        "thousand visits",
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun"),
        (80, 120, 200),
        "the {total}number of visits from {cat}",
    ),
    Topic(
        "rainfall",
        "recorded by a weather service",
        "city",
        ("Bergen", "Cork", "Brest", "Galway", "Porto", "Oban"),
        "mm",
        ("Sep", "Oct", "Nov", "Dec", "Jan", "Feb"),
        (100, 150, 250),
        "the {total}rainfall in {cat}",
    ),
    Topic(
        "loans",
        "at a city library",
        "genre",
        ("Crime", "Fantasy", "History", "Science", "Poetry", "Travel"),
        "hundred loans",
        ("Week 1", "Week 2", "Week 3", "Week 4", "Week 5", "Week 6"),
        (40, 70, 100),
        "the {total}number of {cat} books lent",
    ),
)

# Category colours (matplotlib's tab10, readable on white) and period shades for grouped/stacked bars.
CATEGORY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
CATEGORY_COLOR_NAMES = ("blue", "orange", "green", "red", "purple", "brown")
PERIOD_COLORS = ("#9ecae1", "#4292c6", "#08306b")
PERIOD_COLOR_NAMES = ("light blue", "mid blue", "dark blue")
