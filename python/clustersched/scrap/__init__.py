"""One PTG on a heterogeneous multi-cluster platform (N'takpé & Suter, PDCS 2007): SCRAP, SCRAP-MAX, HCPA, MHEFT-MAX."""
