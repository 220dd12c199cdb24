// An array read at a scaled index (`r = arr[2 * s - 11]`), otherwise
// problem 914 (`reach-index`): s is 9 when k is 1 and 0 when k is 0; mode
// 2 reads neither, so an abstraction keyed on the next step alone joins
// them there (k in [0, 1], s in [0, 9]), and back in mode 1 the read
// (guarded by k == 1 only) may be out of bounds: index [-11, 7]. The runs
// with 2 * s - 11 in [0, 7] (s in [6, 9]) go on, the others end in a fault
// site; keyed on the slots the index reads, no abstract state reaches one.
// A counter c climbs in mode 2, so the concrete states never run out and
// only the abstraction can prove a label unreachable. Hand-worked:
//   start m=1, k=0, s=0, r=0, c=0.
//   A (1, m==1 && k==0): s = 9, k = 1.   E (5, m==1 && k==1): s = 0, k = 0.
//   B (2, m==1): m = 2.   C (3, m==2): m = 1.   D (4, m==2): c += 2.
//   F (4, m==1 && k==1): r = arr[2 * s - 11] (s is 9: arr[7], 10).
//   Anything else is invalid. r is 0 or 10 in every reachable state.
//   error_0: m==1 && r==5             -> unreachable.
//   error_1: m==1 && r==10 && c==2    -> reachable, shortest witness
//            A F B D C (r needs A and F, c needs B D and C back).
//   error_2: m==2 && c==4             -> reachable, shortest witness B D D.

#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4,5};

	void errorCheck();
	void calculate_output(int);

	int arr[] = {3,4,5,6,7,8,9,10};
	int cf = 1;
	int m = 1;
	int k = 0;
	int s = 0;
	int r = 0;
	int c = 0;

	void errorCheck() {
	    if((m == 1 && r == 5)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((m == 1 && r == 10 && c == 2)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((m == 2 && c == 4)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && m == 1 && k == 0) {
    	cf = 0;
    	s = 9;
    	k = 1;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 5)) && m == 1 && k == 1) {
    	cf = 0;
    	s = 0;
    	k = 0;
    	printf("%d\n", 25); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && m == 1) {
    	cf = 0;
    	m = 2;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && m == 2) {
    	cf = 0;
    	m = 1;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && m == 2) {
    	cf = 0;
    	c += (c + 20) > c ? 2 : 0;
    	printf("%d\n", 24); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && m == 1 && k == 1) {
    	cf = 0;
    	r = arr[2 * s - 11];
    	printf("%d\n", 26); fflush(stdout);
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
        if((input != 1) && (input != 2) && (input != 3) && (input != 4) && (input != 5))
          return -2;
        calculate_output(input);
    }
}
