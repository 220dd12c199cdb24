// A pointer that only one mode reads, so that the other mode joins its
// values (2019 challenge style, `int *a1219028256` reassigned by many
// rules, compared through `111 == a1219028256[0]` by a few). Between the
// two arrays it points to lies a scalar, `gap`: the hull of the pointer's
// values names it too, but the pointer never holds it.
//   start m=0, p=lo, x=0.
//   mode 0: A: p = hi.  B: p = lo.  C: m = 1.
//   mode 1: A (p[0] == 5): x = 1, m = 0.  B (p[0] == 1): x = 2, m = 0.
//   Anything else is invalid. In mode 0 nothing reads p: keyed on what
//   the next step reads, the abstraction joins p = lo and p = hi.
//   error_0: x == 1                 -> reachable, shortest witness A C A.
//   error_1: x == 2                 -> reachable, shortest witness C B.
//   error_2: m == 1 && p[1] == 7    -> unreachable (p[1] is 2 or 6).
//   error_3: m == 1 && p[0] == 3    -> unreachable (p[0] is 1 or 5; the
//                                      joined p gives p[0] the hull [1, 5],
//                                      so only keeping p in mode 0 proves it).
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3};

	void errorCheck();
	void calculate_output(int);

	int lo[] = {1,2};
	int gap = 7;
	int hi[] = {5,6};
	int *p = lo;
	int cf = 1;
	int m = 0;
	int x = 0;

	void errorCheck() {
	    if((x == 1)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x == 2)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((m == 1 && p[1] == 7)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	    if((m == 1 && p[0] == 3)){
	    cf = 0;
	    __VERIFIER_error(3);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && m == 0) {
    	cf = 0;
    	p = hi;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && m == 0) {
    	cf = 0;
    	p = lo;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && m == 0) {
    	cf = 0;
    	m = 1;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 1)) && m == 1 && p[0] == 5) {
    	cf = 0;
    	x = 1;
    	m = 0;
    	printf("%d\n", 24); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && m == 1 && p[0] == 1) {
    	cf = 0;
    	x = 2;
    	m = 0;
    	printf("%d\n", 25); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
