package shard_test

import (
	"fmt"

	"github.com/s3bulk/s3bulk/engine/shard"
)

func Example() {
	// Three processes, each given its own index, split the same plan.
	keys := []string{"2026/01.csv", "2026/02.csv", "2026/03.csv", "2026/04.csv", "2026/05.csv", "2026/06.csv", "2026/07.csv", "2026/08.csv"}
	for i := range 3 {
		s, err := shard.FromJobIndex(fmt.Sprint(i), 3)
		if err != nil {
			panic(err)
		}
		var mine []string
		for _, k := range keys {
			if s.Keep(k) {
				mine = append(mine, k)
			}
		}
		fmt.Println(s, mine)
	}
	// Output:
	// 0/3 [2026/02.csv 2026/07.csv]
	// 1/3 [2026/08.csv]
	// 2/3 [2026/01.csv 2026/03.csv 2026/04.csv 2026/05.csv 2026/06.csv]
}
